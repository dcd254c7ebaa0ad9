$ qconf -Arqs dyn-hosts-star.input
