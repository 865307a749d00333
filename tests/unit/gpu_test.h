/* SPDX-License-Identifier: MIT */
/* What the two files of test-gpu-consumer share. */
#ifndef PATHLAB_GPU_TEST_H
#define PATHLAB_GPU_TEST_H

#include "gpu.h"

/* The frames' addresses and ports (gpu_consumer.c). */
extern const struct pl_frame_spec gpu_test_spec;

/* gpu_vs_sim.c: the GPU's verdicts on a mixed batch against sim's. */
void gpu_test_against_sim(struct pl_gpu *g);

#endif
