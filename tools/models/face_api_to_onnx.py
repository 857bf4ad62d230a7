#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Converts two of face-api's trained networks (npm @vladmandic/face-api, MIT) from their TF.js
weights to ONNX (opset 13) made only of DLA-legal nodes: Conv (grouped for depthwise, explicit
pads), LeakyRelu, Relu, MaxPool, AveragePool, Add, Softmax.

  face_api_to_onnx.py MODEL_DIR OUT_DIR [--only tiny_face_detector|face_expression]

MODEL_DIR holds <name>-weights_manifest.json and its shards (the package's model/ folder).
Writes OUT_DIR/tiny_face_detector.onnx and OUT_DIR/face_expression.onnx.

Input normalisation stays outside the graph: each input is face-api's normalised tensor
(pixel - mean RGB) / 255, NCHW float32, which dlainfer's mean/std express as
mean = mean RGB / 255, std = 1 (docs/real-models.md). Layer order, padding and activations are
read from face-api's sources (vladmandic/face-api), cited where used; TF.js's 'same' padding from
tfjs-core's conv_util (tensorflow/tfjs tfjs-core/src/ops/conv_util.ts, computePaddingInfo): the
odd pixel of padding goes to the bottom/right."""
import argparse
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
DETECTOR_SIZE = 416
EXPRESSION_SIZE = 112


class ConvertError(Exception):
    pass


def load_weights(model_dir, name):
    """{tensor name: float32 array} as TF.js loads them (tensorflow/tfjs tfjs-core/src/io/io_utils.ts,
    decodeWeight): shards concatenated in manifest order; uint8/uint16 values dequantised as
    q * scale + min computed in double precision, then stored as float32; float32 read as is."""
    manifest_path = os.path.join(model_dir, name + '-weights_manifest.json')
    try:
        with open(manifest_path, encoding='utf-8') as f:
            groups = json.load(f)
    except OSError as e:
        raise ConvertError(f'{manifest_path}: {e.strerror}; run tests/models/fetch-face-api.sh') from e
    except ValueError as e:
        raise ConvertError(f'{manifest_path}: not JSON ({e}); fetch the package again') from e
    weights = {}
    for group in groups:
        data = read_shards(model_dir, group['paths'])
        offset = 0
        for spec in group['weights']:
            values, nbytes = decode_weight(name, spec, data, offset)
            weights[spec['name']] = values
            offset += nbytes
        if offset != len(data):
            raise ConvertError(f'{name}: {len(data) - offset} bytes of shard data not described by the manifest')
    return weights


def read_shards(model_dir, paths):
    data = b''
    for shard in paths:
        try:
            with open(os.path.join(model_dir, shard), 'rb') as f:
                data += f.read()
        except OSError as e:
            raise ConvertError(f'{os.path.join(model_dir, shard)}: {e.strerror}; fetch the package again') from e
    return data


def decode_weight(name, spec, data, offset):
    """One weight at offset: (float32 array of its shape, bytes it takes)."""
    if spec['dtype'] != 'float32':
        raise ConvertError(f'{name}: weight {spec["name"]} is {spec["dtype"]}, not float32')
    count = int(np.prod(spec['shape'], dtype=np.int64))
    quant = spec.get('quantization')
    stored = {None: '<f4', 'uint8': '<u1', 'uint16': '<u2'}.get(quant and quant['dtype'])
    if stored is None:
        raise ConvertError(f'{name}: weight {spec["name"]}: quantisation {quant["dtype"]} not read here '
                           '(uint8, uint16 or none); this is not face-api 1.7.15\'s model')
    nbytes = np.dtype(stored).itemsize * count
    if offset + nbytes > len(data):
        raise ConvertError(f'{name}: shard data ends inside weight {spec["name"]} '
                           f'({len(data)} bytes); fetch the package again')
    raw = np.frombuffer(data, stored, count, offset)
    values = raw if quant is None else (raw.astype(np.float64) * quant['scale'] + quant['min'])
    return values.astype(np.float32).reshape(spec['shape']), nbytes


def same_pads(size, kernel, stride):
    """TF 'same': out = ceil(size / stride); the total padding split top/left = floor(total / 2)."""
    out = -(-size // stride)
    total = max((out - 1) * stride + kernel - size, 0)
    return out, total // 2, total - total // 2


class Graph:
    """Builds the node list; tracks each tensor's channels and square side for the padding sums."""

    def __init__(self, name, side):
        self.name = name
        self.nodes = []
        self.inits = []
        self.shape = {'input': (3, side)}

    def _node(self, op, inputs, out, like, channels=None, side=None, **attrs):
        c, s = self.shape[like]
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        self.shape[out] = (channels or c, side or s)
        return out

    def _const(self, name, array):
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(array, np.float32), name))
        return name

    def conv(self, x, name, w_oihw, bias, kernel, stride, padding, group=1):
        """padding: 'valid', 'same' (TF's split) or an int on every side (an explicit tf.pad)."""
        side = self.shape[x][1]
        if padding == 'valid':
            out, lo, hi = (side - kernel) // stride + 1, 0, 0
        elif padding == 'same':
            out, lo, hi = same_pads(side, kernel, stride)
        else:
            lo = hi = padding
            out = (side + 2 * padding - kernel) // stride + 1
        inputs = [x, self._const(name + '.weight', w_oihw)]
        if bias is not None:
            inputs.append(self._const(name + '.bias', bias))
        return self._node('Conv', inputs, name, x, channels=w_oihw.shape[0], side=out,
                          kernel_shape=[kernel, kernel], strides=[stride, stride],
                          pads=[lo, lo, hi, hi], group=group)

    def pool(self, x, name, op, kernel, stride, padding):
        side = self.shape[x][1]
        if padding == 'same':
            out, lo, hi = same_pads(side, kernel, stride)
        else:
            out, lo, hi = (side - kernel) // stride + 1, 0, 0
        attrs = {'count_include_pad': 0} if op == 'AveragePool' else {}
        return self._node(op, [x], name, x, side=out, kernel_shape=[kernel, kernel],
                          strides=[stride, stride], pads=[lo, lo, hi, hi], **attrs)

    def leaky(self, x, name):
        # face-api's leaky (src/tinyYolov2/leaky.ts) is relu(x - 0.1x) + 0.1x: LeakyReLU, slope 0.1.
        return self._node('LeakyRelu', [x], name, x, alpha=0.1)

    def relu(self, x, name):
        return self._node('Relu', [x], name, x)

    def add(self, a, b, name):
        return self._node('Add', [a, b], name, a)

    def softmax(self, x, name):
        return self._node('Softmax', [x], name, x, axis=1)

    def separable(self, x, name, w, prefix, stride, padding):
        """tf.separableConv2d: a depthwise conv (stride, padding) then a 1x1 conv, then the bias."""
        dw = w[prefix + '/depthwise_filter']  # [kh, kw, C, 1]
        pw = w[prefix + '/pointwise_filter']  # [1, 1, C, O]
        channels = dw.shape[2]
        dw_oihw = dw.transpose(2, 3, 0, 1).reshape(channels, 1, dw.shape[0], dw.shape[1])
        d = self.conv(x, name + '/depthwise', dw_oihw, None, dw.shape[0], stride, padding, group=channels)
        return self.conv(d, name, pw.transpose(3, 2, 0, 1), w[prefix + '/bias'], 1, 1, 'valid')

    def model(self, outputs, doc):
        c, s = self.shape['input']
        inp = [helper.make_tensor_value_info('input', TensorProto.FLOAT, [1, c, s, s])]
        outs = [helper.make_tensor_value_info(o, TensorProto.FLOAT, [1, self.shape[o][0], self.shape[o][1],
                                                                       self.shape[o][1]]) for o in outputs]
        graph = helper.make_graph(self.nodes, self.name, inp, outs, self.inits)
        m = helper.make_model(graph, producer_name='gst-dlainfer face_api_to_onnx.py',
                              opset_imports=[helper.make_opsetid('', OPSET)], doc_string=doc)
        m.ir_version = 8
        onnx.checker.check_model(m)
        return m


def hwio_to_oihw(w):
    return w.transpose(3, 2, 0, 1)


def tiny_face_detector(w):
    """face-api's TinyFaceDetector (src/tinyFaceDetector/TinyFaceDetector.ts: separable convs, first
    layer a plain conv, filter sizes 3,16,...,512, so no conv6/conv7) run as TinyYolov2Base.runMobilenet
    (src/tinyYolov2/TinyYolov2Base.ts): conv0 'valid' + leaky, then maxpool 2x2 'same' and a separable
    block five times (the last pool stride 1), then conv8 1x1 'valid' without activation. Each block
    (src/tinyYolov2/depthwiseSeparableConv.ts) pads 1 on every side with zeros, runs the separable conv
    'valid', adds the bias and applies leaky."""
    g = Graph('face_api_tiny_face_detector', DETECTOR_SIZE)
    x = g.leaky(g.conv('input', 'conv0', hwio_to_oihw(w['conv0/filters']), w['conv0/bias'], 3, 1, 'valid'),
                'conv0/leaky')
    for i in range(1, 6):
        x = g.pool(x, f'pool{i - 1}', 'MaxPool', 2, 2, 'same')
        x = g.leaky(g.separable(x, f'conv{i}', w, f'conv{i}', 1, 1), f'conv{i}/leaky')
    x = g.pool(x, 'pool5', 'MaxPool', 2, 1, 'same')  # stride 1 'same': one row/column at the bottom/right
    g.conv(x, 'grid', hwio_to_oihw(w['conv8/filters']), w['conv8/bias'], 1, 1, 'valid')
    return g.model(['grid'], 'face-api TinyFaceDetector (npm @vladmandic/face-api 1.7.15, MIT): input '
                   '(RGB - (117.001, 114.697, 97.404)) / 255, 416x416; output 13x13 cells x 5 anchors x '
                   '(x, y, w, h, score), channel = anchor * 5 + field')


def dense_block(g, w, x, name, first):
    """face-api's denseBlock4 (src/faceFeatureExtractor/denseBlock.ts): out1 = relu(conv0, stride 2
    'same': a plain conv in the first block, separable after); out2..out4 = separable convs stride 1
    'same' (src/common/depthwiseSeparableConv.ts) on relu of the running sums, added as TF.js adds them:
    in3 = relu(out1 + out2), in4 = relu(out1 + (out2 + out3)), out = relu(out1 + (out2 + (out3 + out4)))."""
    if first:
        c0 = g.conv(x, f'{name}/conv0', hwio_to_oihw(w[f'{name}/conv0/filters']), w[f'{name}/conv0/bias'],
                    3, 2, 'same')
    else:
        c0 = g.separable(x, f'{name}/conv0', w, f'{name}/conv0', 2, 'same')
    out1 = g.relu(c0, f'{name}/out1')
    out2 = g.separable(out1, f'{name}/conv1', w, f'{name}/conv1', 1, 'same')
    in3 = g.relu(g.add(out1, out2, f'{name}/sum3'), f'{name}/in3')
    out3 = g.separable(in3, f'{name}/conv2', w, f'{name}/conv2', 1, 'same')
    in4 = g.relu(g.add(out1, g.add(out2, out3, f'{name}/sum23'), f'{name}/sum4'), f'{name}/in4')
    out4 = g.separable(in4, f'{name}/conv3', w, f'{name}/conv3', 1, 'same')
    s34 = g.add(out3, out4, f'{name}/sum34')
    s234 = g.add(out2, s34, f'{name}/sum234')
    return g.relu(g.add(out1, s234, f'{name}/sum'), f'{name}/out')


def face_expression(w):
    """face-api's FaceExpressionNet (src/faceExpressionNet/FaceExpressionNet.ts): FaceFeatureExtractor
    (src/faceFeatureExtractor/FaceFeatureExtractor.ts: four dense blocks, avgPool 7x7 stride 2 'valid'
    on the 7x7x256 map) then FaceProcessor.runNet's fully connected layer (src/faceProcessor/
    FaceProcessor.ts, src/common/fullyConnectedLayer.ts: x W + b, W [256, 7]), here a 1x1 conv on the
    1x1x256 map, and forwardInput's softmax. Outputs: 'logits' and 'expressions' (probabilities of
    neutral, happy, sad, angry, fearful, disgusted, surprised: src/faceExpressionNet/FaceExpressions.ts)."""
    g = Graph('face_api_face_expression', EXPRESSION_SIZE)
    x = 'input'
    for i in range(4):
        x = dense_block(g, w, x, f'dense{i}', i == 0)
    x = g.pool(x, 'avgpool', 'AveragePool', 7, 2, 'valid')
    fc = w['fc/weights']  # [256, 7]
    logits = g.conv(x, 'logits', fc.T.reshape(fc.shape[1], fc.shape[0], 1, 1), w['fc/bias'], 1, 1, 'valid')
    g.softmax(logits, 'expressions')
    return g.model(['logits', 'expressions'], 'face-api FaceExpressionNet (npm @vladmandic/face-api 1.7.15, '
                   'MIT): input (RGB - (122.782, 117.001, 104.298)) / 255, 112x112 face crop; output 7 '
                   'expressions: neutral, happy, sad, angry, fearful, disgusted, surprised')


MODELS = {
    'tiny_face_detector': ('tiny_face_detector_model', tiny_face_detector),
    'face_expression': ('face_expression_model', face_expression),
}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('model_dir', help="face-api's model/ folder (manifests and shards)")
    ap.add_argument('out_dir')
    ap.add_argument('--only', choices=sorted(MODELS))
    args = ap.parse_args(argv)
    os.makedirs(args.out_dir, exist_ok=True)
    try:
        for key, (weights_name, build) in MODELS.items():
            if args.only and key != args.only:
                continue
            weights = load_weights(args.model_dir, weights_name)
            try:
                model = build(weights)
            except KeyError as e:
                raise ConvertError(f'{weights_name}: weight {e} missing from the manifest; '
                                   'this is not face-api 1.7.15\'s model') from e
            onnx.save(model, os.path.join(args.out_dir, key + '.onnx'))
    except ConvertError as e:
        print(f'face_api_to_onnx: {e}', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
