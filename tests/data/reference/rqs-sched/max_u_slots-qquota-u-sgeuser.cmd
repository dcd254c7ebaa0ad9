$ qquota -u sgeuser
