sgeuser$ qrdel 1
