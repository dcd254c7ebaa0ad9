$ qconf -Arqs dyn-no-hosts.input
