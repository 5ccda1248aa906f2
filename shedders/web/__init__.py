"""``shedders serve``: play, watch and replay games in the browser (a local web app; see ``shedders.web.app``)."""
