$ qconf -Arqs err-hvmem-2X.input
