$ qconf -shgrp_tree @sub
