/* SPDX-License-Identifier: MIT */
/*
 * Included by the compiler before every line of exercise 10's student
 * file (-include): the consumer of gpudirect/consumer.h, then its checks
 * made unusable. Those checks are what the exercise is graded against;
 * the byte helpers (plc_be16(), plc_be32(), plc_sum()) stay. Nothing the
 * student's file does can take this back: it comes first, and a poisoned
 * name cannot be defined, undefined or used again.
 */
#include "consumer.h"

#pragma GCC poison plc_payload plc_ipv4_udp plc_frame plc_check
