$ (as root) qmod -d @allhosts
