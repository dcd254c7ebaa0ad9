$ qquota -u root sgeuser
