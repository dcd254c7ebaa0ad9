$ qhost -F scratch_free
