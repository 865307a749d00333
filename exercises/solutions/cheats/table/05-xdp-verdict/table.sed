# Red team, exercise 5: the reference program, made to answer only for the
# frames the tests show (60 bytes: test_xdp.c's ARP and good datagram and
# its malformed ones of that size); any other goes on uncounted.
/^int pathlab_xdp(struct xdp_md \*ctx)$/,/^{$/{
	/^{$/a\
	if (ctx->data_end - ctx->data != 60)\
		return XDP_PASS;
}
