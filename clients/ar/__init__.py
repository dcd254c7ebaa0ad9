"""The advance reservation commands qrsub, qrstat and qrdel (``clients.ar.<command>``):
options (``options``), outputs (``render``), usage texts (``usage``)."""
