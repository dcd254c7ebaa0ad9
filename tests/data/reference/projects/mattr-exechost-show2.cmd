$ qconf -se vm | grep projects
