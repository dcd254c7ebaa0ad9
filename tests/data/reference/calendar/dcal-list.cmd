$ qconf -dcal ca,nosuch,cb
