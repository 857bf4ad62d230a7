// SPDX-License-Identifier: LGPL-2.1-or-later
// The oracle for the converted face-api models: face-api's own networks (npm @vladmandic/face-api,
// its Node entry dist/face-api.node-wasm.js) on tfjs's pure-JS CPU backend, run on photographs.
//
//   node face_api_oracle.js CACHE PHOTOS.json OUT
//
// CACHE is the directory tests/models/fetch-face-api.sh filled (node_modules/ inside). PHOTOS.json
// lists {name, width, height, rgb} (rgb: a file of height*width*3 bytes, RGB, row-major). For each
// photo OUT/<name>/ gets, all little-endian float32 in NCHW order (transposed from tfjs's NHWC):
//   detector_input.f32  1x3x416x416: what TinyFaceDetector's first conv saw (face-api's own
//                       pad-to-square at the bottom/right, bilinear resize, minus mean RGB, / 255)
//   detector_output.f32 1x25x13x13: its raw map before decode (channel = anchor * 5 + x,y,w,h,score)
//   face<k>_input.f32   1x3x112x112: what FaceExpressionNet saw for crop k (centred pad, resize,
//                       minus its mean RGB, / 255)
//   face<k>_logits.f32  7 values before the softmax; face<k>_probs.f32 face-api's probabilities
// and OUT/oracle.json records every file, face-api's decoded detections and expressions.
'use strict';
const fs = require('fs');
const path = require('path');

// face-api's FaceFeatureExtractor subtracts this mean before / 255; it is a literal in its
// forwardInput, not configuration (vladmandic/face-api src/faceFeatureExtractor/FaceFeatureExtractor.ts).
// The check below (the same logits from the crop and from the dumped tensor) holds only if it is right.
const EXPRESSION_MEAN_RGB = [122.782, 117.001, 104.298];
const DETECTOR_SIZE = 416;
const EXPRESSION_SIZE = 112;

const shared = require('./face_api_load');

const fail = shared.failer('face_api_oracle');
const load = (cache) => shared.load(cache, fail);

function writeNchw(tf, t, file) {
  const nchw = tf.tidy(() => tf.transpose(t, [0, 3, 1, 2]));
  fs.writeFileSync(file, Buffer.from(nchw.dataSync().buffer));
  const shape = nchw.shape;
  nchw.dispose();
  return shape;
}

function writeFlat(t, file) {
  fs.writeFileSync(file, Buffer.from(Float32Array.from(t.dataSync()).buffer));
  return t.shape;
}

function sameBits(a, b) {
  const x = a.dataSync();
  const y = b.dataSync();
  return x.length === y.length && x.every((v, i) => Object.is(v, y[i]));
}

// The detector on one photo: returns the record; throws when the dumped input is not the one
// face-api's forwardInput used (the raw map recomputed from it must be bit-identical).
async function runDetector(faceapi, img, dir) {
  const { tf } = faceapi;
  const net = faceapi.nets.tinyFaceDetector;
  const netInput = await faceapi.toNetInput(img);
  const raw = net.forwardInput(netInput, DETECTOR_SIZE);
  const seen = tf.tidy(() => {
    const batch = tf.cast(netInput.toBatchTensor(DETECTOR_SIZE, false), 'float32');
    return faceapi.normalize(batch, net.config.meanRgb).div(255);
  });
  const again = net.runMobilenet(seen, net.params);
  if (!sameBits(raw, again)) throw new Error('detector: the dumped input does not give face-api\'s raw map');
  const rec = {
    input: { file: 'detector_input.f32', shape: writeNchw(tf, seen, path.join(dir, 'detector_input.f32')) },
    output: { file: 'detector_output.f32', shape: writeNchw(tf, raw, path.join(dir, 'detector_output.f32')) },
    mean_rgb: net.config.meanRgb,
    anchors: net.config.anchors.map((a) => [a.x, a.y]),
  };
  tf.dispose([raw, seen, again]);
  const opts = new faceapi.TinyFaceDetectorOptions({ inputSize: DETECTOR_SIZE, scoreThreshold: 0.5 });
  const dets = await net.locateFaces(img, opts);
  rec.detections = dets.map((d) => ({ score: d.score, box: [d.box.x, d.box.y, d.box.width, d.box.height] }));
  return { rec, dets };
}

// FaceExpressionNet on one crop (a tf.Tensor3D of pixels).
async function runExpression(faceapi, crop, dir, k) {
  const { tf } = faceapi;
  const net = faceapi.nets.faceExpressionNet;
  const netInput = await faceapi.toNetInput(crop);
  const logits = net.runNet(netInput);
  const probs = net.forwardInput(netInput);
  // The pixels face-api resized to 112x112 (centred padding), fed back: nothing is resized again,
  // so the same logits mean these pixels, and the mean below, are what the network saw.
  const batch = tf.cast(netInput.toBatchTensor(EXPRESSION_SIZE, true), 'float32');
  const again = net.runNet(await faceapi.toNetInput(batch));
  if (!sameBits(logits, again)) throw new Error('expression: the dumped crop does not give face-api\'s logits');
  const seen = tf.tidy(() => faceapi.normalize(batch, EXPRESSION_MEAN_RGB).div(255));
  const names = ['input', 'logits', 'probs'].map((s) => `face${k}_${s}.f32`);
  const rec = {
    input: { file: names[0], shape: writeNchw(tf, seen, path.join(dir, names[0])) },
    logits: { file: names[1], shape: writeFlat(logits, path.join(dir, names[1])) },
    probs: { file: names[2], shape: writeFlat(probs, path.join(dir, names[2])) },
    expressions: new faceapi.FaceExpressions(probs.dataSync()).asSortedArray().slice(0, 3),
  };
  tf.dispose([logits, probs, batch, again, seen]);
  return rec;
}

// The crops: face-api's own (extractFaceTensors on the detections) and, so that every photo gives
// one, the centred square of side 0.6 * the shorter side.
async function crops(faceapi, img, dets, width, height) {
  const side = Math.round(0.6 * Math.min(width, height));
  const centre = new faceapi.Rect(Math.round((width - side) / 2), Math.round((height - side) / 2), side, side);
  const boxes = dets.map((d) => ({ kind: 'detection', box: d }));
  boxes.push({ kind: 'centre', box: centre });
  const tensors = await faceapi.extractFaceTensors(img, boxes.map((b) => b.box));
  if (tensors.length !== boxes.length) throw new Error('a detection lies outside its photo');
  return boxes.map((b, i) => ({ kind: b.kind, tensor: tensors[i] }));
}

async function main() {
  const [cache, photosJson, out] = process.argv.slice(2);
  if (!out) fail('usage: face_api_oracle.js CACHE PHOTOS.json OUT');
  const faceapi = load(cache);
  const { tf } = faceapi;
  await tf.setBackend('cpu');
  await tf.ready();
  const modelDir = path.join(path.resolve(cache), 'node_modules/@vladmandic/face-api/model');
  await faceapi.nets.tinyFaceDetector.loadFromDisk(modelDir);
  await faceapi.nets.faceExpressionNet.loadFromDisk(modelDir);
  const record = { face_api: faceapi.version, tfjs: tf.version_core, backend: tf.getBackend(), photos: [] };
  for (const p of JSON.parse(fs.readFileSync(photosJson, 'utf8'))) {
    const dir = path.join(out, p.name);
    fs.mkdirSync(dir, { recursive: true });
    const pixels = fs.readFileSync(p.rgb);
    if (pixels.length !== p.width * p.height * 3) fail(`${p.rgb}: ${pixels.length} bytes, not ${p.width}x${p.height}x3`);
    const img = tf.tensor3d(Int32Array.from(pixels), [p.height, p.width, 3], 'int32');
    const { rec, dets } = await runDetector(faceapi, img, dir);
    Object.assign(rec, { name: p.name, width: p.width, height: p.height });
    rec.faces = [];
    const list = await crops(faceapi, img, dets, p.width, p.height);
    for (let k = 0; k < list.length; k++) {
      const face = await runExpression(faceapi, list[k].tensor, dir, k);
      face.kind = list[k].kind;
      rec.faces.push(face);
      list[k].tensor.dispose();
    }
    img.dispose();
    record.photos.push(rec);
  }
  fs.writeFileSync(path.join(out, 'oracle.json'), JSON.stringify(record, null, 1));
}

main().catch((e) => fail(e.message));
