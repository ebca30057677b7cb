// The sign-in's browser for the conformance client: opens the authorization URL (the last
// argument) and follows its redirects, back to tetherctl's loopback address, as a browser whose
// user has already agreed would.
const response = await fetch(process.argv.at(-1));
await response.arrayBuffer();
