sgeuser$ qrdel abc
