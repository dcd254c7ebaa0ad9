$ qconf -dcal weekend
