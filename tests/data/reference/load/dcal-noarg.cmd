$ qconf -dcal
