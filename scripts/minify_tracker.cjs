// Minifies the tracking script's source into each of its files, for
// scripts/make_tracking_script.py: `node minify_tracker.cjs <terser's folder>` reads
// {"source": "...", "files": {"<name>": {"<FLAG>": true|false, ...}}} on stdin and writes
// {"<name>": "<minified code>"} on stdout. Each flag is a constant to terser, so the code
// an extension's flag guards is left out of the files without it.
'use strict';
const {minify} = require(process.argv[2]);

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', async () => {
  const {source, files} = JSON.parse(input);
  const built = {};
  for (const [name, flags] of Object.entries(files)) {
    const result = await minify(source, {
      ecma: 5, // the source's own syntax: nothing newer is written into it
      compress: {global_defs: flags, passes: 2},
      mangle: true,
      format: {comments: false},
    });
    built[name] = result.code;
  }
  process.stdout.write(JSON.stringify(built));
});
