"""Views: pure conversions from the qmaster's replies to the rows the renderers print (qstat, qstat -j, qhost)."""
