$ qconf -scal ca,cb
