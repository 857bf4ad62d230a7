// SPDX-License-Identifier: LGPL-2.1-or-later
// What a face-api oracle in Node needs first (face_api_oracle.js, face_api_clip_oracle.js): failing
// in one line, and face-api's Node entry loaded from the cache tests/models/fetch-face-api.sh filled.
'use strict';
const path = require('path');
const { createRequire } = require('module');

function failer(program) {
  return (msg) => {
    process.stderr.write(`${program}: ${msg}\n`);
    process.exit(1);
  };
}

function load(cache, fail) {
  const req = createRequire(path.join(path.resolve(cache), 'package.json'));
  try {
    return req('@vladmandic/face-api/dist/face-api.node-wasm.js');
  } catch (e) {
    fail(`cannot load face-api from ${cache}/node_modules (${e.message.split('\n')[0]}); ` +
      'run tests/models/fetch-face-api.sh first');
  }
  return null;
}

module.exports = { failer, load };
