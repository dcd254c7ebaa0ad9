$ qhold 302
