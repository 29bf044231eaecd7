"""The installable offline app (issue 37, point 6): the page has a web app manifest Chromium
finds nothing to object to, its service worker keeps the app shell, and with the server stopped a
reload opens the app (not the browser's error page) with the autosaved drawing and the offline
banner. Recognition comes back with the server; drawing works without it.

Run:  /usr/bin/python3 -m pytest -v Tests/Browser/test_offline_app.py
"""



from browser_helpers import attr_int, canvas_rect, draw, open_app, save_screenshot, shell_kept, wait_for
from conftest import skip_module_without_browser, start_server, stop_server

skip_module_without_browser()

#: Files the app needs to open offline: its modules, styles and the catalog of its language.
SHELL = ["app.js", "style.css", "live.js", "i18n.js", "locales/en.json"]

STROKES = [  # a house: walls, roof, door (canvas px, ms)
    ([(200, 300), (200, 420), (360, 420), (360, 300), (200, 300)], [0, 120, 240, 360, 480]),
    ([(190, 305), (280, 220), (370, 305)], [0, 150, 300]),
    ([(265, 420), (265, 370), (295, 370), (295, 420)], [0, 80, 160, 240]),
]


def test_the_app_installs_and_reopens_offline_with_its_drawing(driver, tmp_path_factory, server):
    srv = start_server(tmp_path_factory, server.data_dir, name="offline-app-server")
    stopped = False
    try:
        base = f"http://{srv.host}:{srv.port}"
        open_app(driver, base)
        errors = driver.execute_cdp_cmd("Page.getInstallabilityErrors", {})["installabilityErrors"]
        assert errors == [], f"Chromium would not install the app: {errors}"
        manifest = driver.execute_script("return document.querySelector('link[rel=manifest]').href")
        assert manifest.endswith("/manifest.webmanifest?lang=en")
        wait_for(lambda: shell_kept(driver, SHELL), 30, message="the app shell kept by the service worker")

        draw(driver, STROKES, canvas_rect(driver))
        wait_for(lambda: attr_int(driver, "data-stroke-count") == len(STROKES), 10, message="three strokes")
        wait_for(lambda: driver.execute_script("return (localStorage.getItem('sketchwise.document') || '').includes('strokes')"),
                 10, message="the drawing autosaved")

        stop_server(srv)
        stopped = True
        driver.refresh()
        open_app(driver, base, expect_state="offline")
        assert driver.title.startswith("Sketchwise"), driver.title
        assert driver.find_element("id", "offline-banner").is_displayed()
        assert attr_int(driver, "data-stroke-count") == len(STROKES), "the autosaved drawing is back"
        save_screenshot(driver, "offline-app-reopened.png")
    finally:
        if not stopped:
            stop_server(srv)
