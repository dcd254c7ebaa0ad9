"""pygridengine: common package."""
