$ qconf -Arqs dyn-users-expanded-no-hosts.input
