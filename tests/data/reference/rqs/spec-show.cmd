$ qconf -srqs spec_two_rules,spec_hosts_durin,spec_hosts_lx,spec_staff,spec_staff2,spec_dyn,spec_dyn_linux
