$ qconf -shgrp_resolved @nosuch
