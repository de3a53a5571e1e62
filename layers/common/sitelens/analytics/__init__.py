"""Analytics collection: turning a tracking request into counted stats."""
