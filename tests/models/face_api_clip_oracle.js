// SPDX-License-Identifier: LGPL-2.1-or-later
// face-api's own answer for every frame of a clip: its TinyFaceDetector (input 416, score
// threshold 0.5) and, for each face it found, its FaceExpressionNet on face-api's own crop
// (detectAllFaces(...).withFaceExpressions(), npm @vladmandic/face-api in Node, tfjs's WASM backend:
// about ten times the CPU backend's speed; the model oracle keeps the CPU one for its exact dumps).
//
//   node face_api_clip_oracle.js CACHE FRAMES.rgb WIDTH HEIGHT OUT.txt
//
// CACHE is the directory tests/models/fetch-face-api.sh filled. FRAMES.rgb holds the decoded frames
// back to back, WIDTH*HEIGHT*3 bytes each (RGB, row-major). OUT.txt starts with the detector's
// configuration (`detector-mean R G B`, `anchors X,Y ...` in cells), then has one line per frame,
//   frame F faces K
// followed by one line per face, in frame pixels:
//   face F X Y W H SCORE EXPRESSION PROBABILITY
// (pipelines/faces-check.py reads it; tools/models/face_api_prepare.py writes the frames).
'use strict';
const fs = require('fs');
const path = require('path');
const shared = require('./face_api_load');

const fail = shared.failer('face_api_clip_oracle');
const load = (cache) => shared.load(cache, fail);

function top(expressions) {
  return Object.entries(expressions).reduce((a, b) => (b[1] > a[1] ? b : a));
}

async function main() {
  const [cache, framesFile, w, h, out] = process.argv.slice(2);
  if (!out) fail('usage: face_api_clip_oracle.js CACHE FRAMES.rgb WIDTH HEIGHT OUT.txt');
  const width = Number(w);
  const height = Number(h);
  const size = width * height * 3;
  const bytes = fs.readFileSync(framesFile);
  if (!(size > 0) || bytes.length % size !== 0) {
    fail(`${framesFile}: ${bytes.length} bytes is not a whole number of ${width}x${height} RGB frames`);
  }
  const faceapi = load(cache);
  const { tf } = faceapi;
  await tf.setBackend('wasm');
  await tf.ready();
  const modelDir = path.join(path.resolve(cache), 'node_modules/@vladmandic/face-api/model');
  await faceapi.nets.tinyFaceDetector.loadFromDisk(modelDir);
  await faceapi.nets.faceExpressionNet.loadFromDisk(modelDir);
  const opts = new faceapi.TinyFaceDetectorOptions({ inputSize: 416, scoreThreshold: 0.5 });
  const det = faceapi.nets.tinyFaceDetector.config;
  const lines = [`# face-api ${faceapi.version}, tfjs ${tf.version_core} (${tf.getBackend()})`,
    `detector-mean ${det.meanRgb.join(' ')}`, `anchors ${det.anchors.map((a) => `${a.x},${a.y}`).join(' ')}`];
  for (let f = 0; f * size < bytes.length; f++) {
    const pixels = Int32Array.from(bytes.subarray(f * size, (f + 1) * size));
    const img = tf.tensor3d(pixels, [height, width, 3], 'int32');
    const faces = await faceapi.detectAllFaces(img, opts).withFaceExpressions();
    img.dispose();
    lines.push(`frame ${f} faces ${faces.length}`);
    for (const r of faces) {
      const b = r.detection.box;
      const [label, p] = top(r.expressions);
      lines.push(`face ${f} ${b.x.toFixed(2)} ${b.y.toFixed(2)} ${b.width.toFixed(2)} ${b.height.toFixed(2)} ` +
        `${r.detection.score.toFixed(4)} ${label} ${p.toFixed(4)}`);
    }
  }
  fs.writeFileSync(out, lines.join('\n') + '\n');
}

main().catch((e) => fail(e.message));
