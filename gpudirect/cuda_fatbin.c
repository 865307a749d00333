/* SPDX-License-Identifier: MIT */
/*
 * The consumer kernel as bytes: consumer.cu built by nvcc --fatbin, turned
 * into a C array (pl_consumer_fatbin, pl_consumer_fatbinLength) by the
 * toolkit's bin2c. gpu_cuda.c hands it to cuModuleLoadData().
 */
#include <stdint.h>

#include "consumer_fatbin.inc"
