$ qconf -aattr resource_quota limit h_vmem=1G rname3/3
