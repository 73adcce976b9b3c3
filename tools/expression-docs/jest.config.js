module.exports = { ...require('../../jest.preset.js'), displayName: 'expression-docs' };
