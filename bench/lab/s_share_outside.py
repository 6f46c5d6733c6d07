import streamlit as st, json
st.title("Trivial")
@st.fragment
def f():
    v = st.slider("value", 0, 100, 50)
    st.write(v)
f()
st.divider(); st.subheader("Share and reproduce")
with st.container(border=True):
    st.markdown("**Settings.** The address bar always holds ...")
    a, b = st.columns(2)
    a.download_button("Download settings (JSON)", lambda: json.dumps({"v": 1}), "s.json", "application/json", key="dl1")
    with b:
        st.file_uploader("Load settings (JSON)", type=["json"], key="up")
