$ qconf -Arqs desc-empty-quotes.input
