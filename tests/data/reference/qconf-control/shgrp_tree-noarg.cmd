$ qconf -shgrp_tree
