// yamllint over k8s/ and docker-compose.yml with the repository's relaxed .yamllint.yml (line
// length 160). Runs when yamllint is installed (apt package yamllint); skipped otherwise.
import { describeRun, repoPath, run, which } from './support';

const yamllint = which('yamllint');
if (!yamllint) console.warn('deploy-check: yamllint is not installed (apt-get install -y yamllint); skipping the YAML lint check.');

(yamllint ? describe : describe.skip)('yamllint', () => {
  it('k8s/, docker-compose.yml and .yamllint.yml pass in strict mode (warnings fail too)', () => {
    const r = run(yamllint!, ['-s', '-f', 'parsable', '-c', repoPath('.yamllint.yml'), 'k8s', 'docker-compose.yml', '.yamllint.yml']);
    expect(r.status === 0 ? '' : describeRun(r)).toBe('');
  });

  it('reports a broken file (the configuration is not vacuous)', () => {
    const r = run(yamllint!, ['-s', '-c', repoPath('.yamllint.yml'), '-'], { input: 'a: 1\na: 2\nb:  [1,2]\n' });
    expect(r.status).not.toBe(0);
    expect(r.stdout).toMatch(/duplication of key "a"/);
  });
});
