#!/bin/sh
# The GPU check (gpudirect/gpu_check.cu) as a test: it passes on a GPU
# machine when every check that ran passed, and skips (77) without a GPU.
# $1 pathlab-gpu-check.
"$1"
