$ qconf -scal dayonly2
