root$ qrdel 9
