$ qconf -Arqs desc-inner-quote.input
