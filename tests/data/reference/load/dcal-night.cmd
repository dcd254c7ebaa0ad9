$ qconf -dcal night
