// SPDX-License-Identifier: LGPL-2.1-or-later
// prep_ort.js MODULES MODEL.onnx INPUT.f32 OUTDIR: runs MODEL on ONNX Runtime (npm onnxruntime-node,
// CPU) with one float32 NCHW input read from INPUT.f32 and writes each output to OUTDIR/<index>.f32
// plus OUTDIR/outputs.json (names and dims): dlainfer-prep's oracle for the uncut graphs' decode.
// MODULES: the folder holding node_modules/onnxruntime-node (tests/tools/fetch-onnxruntime-node.sh).
'use strict';
const fs = require('fs');
const path = require('path');

async function main() {
  const [modules, model, input, outdir] = process.argv.slice(2);
  const ort = require(path.join(modules, 'node_modules', 'onnxruntime-node'));
  const session = await ort.InferenceSession.create(model, { executionProviders: ['cpu'] });
  const meta = session.inputMetadata ? session.inputMetadata[0] : null;
  const buf = fs.readFileSync(input);
  const data = new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4);
  const dims = JSON.parse(process.env.PREP_INPUT_DIMS);
  const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', data, dims) };
  const results = await session.run(feeds);
  const listed = [];
  session.outputNames.forEach((name, i) => {
    const t = results[name];
    fs.writeFileSync(path.join(outdir, `${i}.f32`), Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    listed.push({ name, dims: t.dims });
  });
  fs.writeFileSync(path.join(outdir, 'outputs.json'), JSON.stringify({ runtime: `onnxruntime-node ${ort.env.versions ? ort.env.versions.common : ''}`, meta: !!meta, outputs: listed }));
}
main().catch((e) => { console.error(`prep_ort: ${e.message}`); process.exit(1); });
