$ qconf -scal yt
