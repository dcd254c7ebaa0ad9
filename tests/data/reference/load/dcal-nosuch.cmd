$ qconf -dcal nosuch
