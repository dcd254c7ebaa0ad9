sgeuser$ qrdel 38
