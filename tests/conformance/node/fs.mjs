// node:fs as Node 22 has it: with globSync (here from the glob package).
import fs from 'node:fs';

export * from 'node:fs';
export { globSync } from 'glob';
export default fs;
