// Loaded with `node --import` before the conformance suite: the suite imports fs.globSync,
// which Node 22 has and Debian 12's Node 20 lacks, so its `fs` is given the glob package's.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
