$ qhost -F scratch_free -xml
