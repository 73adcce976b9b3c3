/** Below every id: the cursor of a keyset page before the first one (no object ever has the nil UUID). */
export const NO_ID = '00000000-0000-0000-0000-000000000000';
