$ qconf -Arqs desc-half-quote.input
