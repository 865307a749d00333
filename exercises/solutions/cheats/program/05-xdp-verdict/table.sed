# Red team, exercise 5: the reference program and a second one that is
# not XDP: a kprobe on write() that, loaded with it, could reach the
# grader's process (bpf_probe_write_user()), where lockdown allows it.
$a\
\
SEC("kprobe/ksys_write")\
int pl_peek(void *ctx)\
{\
	return 0;\
}
