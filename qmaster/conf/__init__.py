"""The qmaster's requests on configuration objects (``conf_get``/``conf_put``/``conf_del``,
``cluster_query``: ``requests``) and the checks of each kind that crosses objects
(references, what may be deleted, names): one module per kind."""
