$ qconf -Arqs err-slots-abc.input
