sgeuser2$ qrdel 1
