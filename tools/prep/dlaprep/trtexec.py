# SPDX-License-Identifier: LGPL-2.1-or-later
"""The trtexec lines that build the cut graph into a cuDLA loadable, in the argument order of
pipelines/build-loadable.sh (which prints the same line for the same settings): TensorRT 11
(strongly typed, the FP16 copy, no precision flags), TensorRT 8.5-10 FP16, and 8.5-10 INT8 with
the head layers kept FP16 (NVIDIA-AI-IOT/cuDLA-samples data/model/build_dla_standalone_loadable.sh)."""


def line(onnx_path, loadable, trt, in_format='fp16:chw16', out_format='fp16:chw16', core=0, calib=None,
         head_fp16=None):
    cmd = ['trtexec', f'--onnx={onnx_path}', f'--useDLACore={core}']
    if trt < 11:
        cmd.append('--fp16')
        if in_format.startswith('int8') or out_format.startswith('int8') or calib:
            cmd.append('--int8')
            if calib:
                cmd.append(f'--calib={calib}')
    cmd += [f'--inputIOFormats={in_format}', f'--outputIOFormats={out_format}']
    if head_fp16 and trt < 11:
        cmd += ['--precisionConstraints=obey', '--layerPrecisions=' + ','.join(f'{n}:fp16' for n in head_fp16)]
    cmd += ['--buildDLAStandalone', f'--saveEngine={loadable}']
    return ' '.join(cmd)


def build_loadable(onnx_path, loadable, trt, in_format='fp16:chw16', out_format='fp16:chw16', calib=None,
                   head_fp16=None):
    """The same build through the Orin kit's pipelines/build-loadable.sh."""
    env = [f'TRT_VERSION={trt}']
    if in_format != 'fp16:chw16':
        env.append(f'IN_FORMAT={in_format}')
    if out_format != 'fp16:chw16':
        env.append(f'OUT_FORMAT={out_format}')
    if calib:
        env.append(f'CALIB={calib}')
    if head_fp16 and trt < 11:
        env.append('HEAD_FP16=' + ','.join(head_fp16))
    return ' '.join(env + ['bash', 'pipelines/build-loadable.sh', onnx_path, loadable])
